"""Recognizers of source constructs over the instruction stream, one module per construct."""
