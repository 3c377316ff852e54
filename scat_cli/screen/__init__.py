"""`scat play`: a full-screen client for one game (Textual), over the same `Games` boundary as every command."""
