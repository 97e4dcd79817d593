"""daihinmin.protocol."""
