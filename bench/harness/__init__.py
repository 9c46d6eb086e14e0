"""What every bench needs, one copy each: fresh databases (databases), the app served as `make
run` serves it (servers), a task in a Django process of its own (children), load generators
(clients), request bodies (payloads), the driver's bulk insert (rawdb), the arithmetic of
timings (figures), where a call's time goes (profiles), and the report (report)."""
