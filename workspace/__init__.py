"""A shared working document per conversation thread, written by AI agents through tools."""
