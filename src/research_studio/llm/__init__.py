"""Models: provider resolution, structured calls with repair and retry, the embedded model, pricing, budget."""
