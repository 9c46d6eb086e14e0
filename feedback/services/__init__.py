"""Writing what agents, environments and people send, one module a kind: feedback
(`feedbacks`), experiences (`experiences`) and turns (`turns`), each batch one transaction;
`rows` holds the columns and the pieces of a row they share."""
