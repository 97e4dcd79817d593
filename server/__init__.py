"""daihinmin.server."""
