"""placeholder"""
CONSTRUCT = "async_samples"
