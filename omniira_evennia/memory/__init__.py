"""What NPCs remember: the write path, the stores, retrieval, embedders, text policy, erasure."""
