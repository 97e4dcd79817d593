"""The seat fault vocabulary (statuses, hand-overs, seat reports) of the server's modules.

The values live in :mod:`daihinmin.driver.faults`, beside the game record that logs them;
this module names them for the server's own modules.
"""

from daihinmin.driver.faults import (
    ENDS_CONNECTION,
    SEVERITY,
    OnFault,
    SeatEvent,
    SeatReport,
    SeatStatus,
    more_serious,
)

__all__ = ["ENDS_CONNECTION", "SEVERITY", "OnFault", "SeatEvent", "SeatReport", "SeatStatus",
           "more_serious"]
