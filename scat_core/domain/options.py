"""The options a game is created with (R4, R5, R7, R15, R15b, R23, R25)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from .move_time import MOVE_TIME_RANGE, format_duration


class GameOptions(BaseModel):
    """Rule options, recorded in the game's first event so a replay uses the game's own rules.

    An on/off option is a `bool` field, off by default (`describe` names those that are on).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    lives: int = Field(default=3, ge=1, le=9, description="R7: pennies each player starts with")
    three_of_a_kind: bool = Field(default=False, description="R4: three of a rank are worth 30")
    straight_flush: bool = Field(default=False, description="R5: a suited run is worth 30 (A-K-Q 31)")
    min_knock: int | None = Field(default=None, ge=1, le=31, description="R15: least value to knock")
    no_first_round_knock: bool = Field(default=False, description="R15b: no knock in the first round")
    throw_down: bool = Field(default=False, description="R23: throw down allowed")
    no_dole: bool = Field(default=False, description="R25: out as soon as the last penny is paid")
    move_time: int | None = Field(default=None, ge=MOVE_TIME_RANGE[0], le=MOVE_TIME_RANGE[1],
                                   description="R28: seconds for each turn")

    @model_serializer(mode="wrap")
    def _without_move_time_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        """No move time is left out, so games without one serialize (and hash) as before R28."""
        data = handler(self)
        if isinstance(data, dict) and data.get("move_time", 0) is None:
            del data["move_time"]
        return data

    @property
    def values_beyond_suits(self) -> bool:
        """Whether a hand may be worth more than its point suit (R4 or R5 enabled): see `cards.hand_value`."""
        return self.three_of_a_kind or self.straight_flush

    def describe(self) -> list[str]:
        """The options that differ from the defaults, in CLI spelling."""
        parts = [] if self.lives == 3 else [f"lives {self.lives}"]
        parts += [
            name.replace("_", "-")
            for name, field in type(self).model_fields.items()
            if field.annotation is bool and getattr(self, name)  # every on/off option, in field order
        ]
        if self.min_knock is not None:
            parts.append(f"min-knock {self.min_knock}")
        if self.move_time is not None:
            parts.append(f"move-time {format_duration(self.move_time)}")
        return parts
