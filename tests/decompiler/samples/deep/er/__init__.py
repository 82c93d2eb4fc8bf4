"""See samples.deep."""
