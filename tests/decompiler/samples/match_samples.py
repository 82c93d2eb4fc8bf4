"""placeholder"""
CONSTRUCT = "match_samples"
