"""The supervisor pipeline's nodes."""
