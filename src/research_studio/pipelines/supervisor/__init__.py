"""The supervisor pipeline (spec 004): a tool-calling supervisor, researchers, councils, verified findings."""
