"""placeholder"""
CONSTRUCT = "with_statements"
