"""daihinmin.client."""
