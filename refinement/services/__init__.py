"""The refinement lifecycle, one module a step: a proposal registered (`register`), reviewed
(`reviews`), filed in a plan (`plans`), applied or queued for a person (`apply`), approved or
rejected (`approval`), rolled back (`rollback`), every change of a path written by `edits`.

Every state change happens in one transaction, with a compare-and-swap on each path
(`select_for_update` rows on PostgreSQL; SQLite's immediate transactions serialize writers).
Every change of a path, by one apply, by adapt or by a rollback, goes through
`edits.edits_apply`.

Every path that writes (apply, approve, reject, rollback, adapt) takes its locks in one order,
so that two writers of the same rows queue behind each other and never deadlock:
1. proposal rows, by id: a proposal's row guards its reviews and refinements;
2. the refinement being rolled back;
3. store rows in path order, then step rows, in one call (`store.read_many(..., lock=True)`);
4. plan rows, last (`plans.plan_settle`).
Proposal and refinement rows are locked "for no key update", so that inserting a review or a
revision that merely points at one never waits.
"""
