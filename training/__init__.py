"""LoRA SFT for the middle layer and the clause-to-AST model: WebRider Appendix E, Tables 37-39.

Stands apart from the agent: reads datasets from disk, never imports agent_runtime or data_export.
Entry point: training/sft.py (``accelerate launch ... training/sft.py --recipe ...``).
"""
