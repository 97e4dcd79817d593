"""daihinmin.players."""
