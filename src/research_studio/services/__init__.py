"""One run's services: its clients, model callers, resolution of choices and extraction strategy."""
