"""daihinmin.rules."""
