"""What a local model folder declares: its identity (a fingerprint of what its files hold, not where
they are) and how its last hidden state is pooled into one vector. Read by the configuration and the
encoders; imports nothing from `corpus`.
"""
