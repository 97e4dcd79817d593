"""daihinmin.watch: a table seen live from outside the match.

``snapshot`` (the public snapshot of a table: counts, classes, field, last play, scores; no
hand) and ``publish`` (:class:`~daihinmin.watch.publish.TableWatcher`, an observer of a
table that keeps its newest snapshot, and :class:`~daihinmin.watch.publish.TablePublisher`,
which sends it to ``daihinmin web``'s ``/ws/publish``).  The TCP server, the in-process runner
(through :func:`~daihinmin.watch.publish.driver_observer`) and tournaments use it; the web
app serves what it sends.
"""

from daihinmin.watch.publish import TablePublisher, TableWatcher, driver_observer, publish_url
from daihinmin.watch.snapshot import cards_json, game_json, match_json, move_json

__all__ = ["TablePublisher", "TableWatcher", "cards_json", "driver_observer", "game_json",
           "match_json", "move_json", "publish_url"]
