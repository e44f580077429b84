"""Memory held across training steps: TL401 undetached-loss-accumulation, TL402 unbounded-step-history."""
