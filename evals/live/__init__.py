"""Live insertion of a middle layer behind the fixed top, guards and executor."""
