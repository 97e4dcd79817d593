"""The browser: play against CPUs, hot-seat, rooms; watch live tables; replay match logs."""
