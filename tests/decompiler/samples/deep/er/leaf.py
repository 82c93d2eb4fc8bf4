"""See samples.deep."""

VALUE = "leaf"
