"""placeholder"""
CONSTRUCT = "except_star"
