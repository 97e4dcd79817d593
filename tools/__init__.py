"""daihinmin.tools."""
