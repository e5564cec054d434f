-- The money trail is append-only: ledger rows, settlements, results and the audit log
-- can be inserted but never changed or deleted (a correction is a new, opposite row).

CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger rows are append-only');
END;

CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger rows are append-only');
END;

CREATE TRIGGER hand_settlements_no_update BEFORE UPDATE ON hand_settlements
BEGIN
    SELECT RAISE(ABORT, 'hand settlements are append-only');
END;

CREATE TRIGGER hand_settlements_no_delete BEFORE DELETE ON hand_settlements
BEGIN
    SELECT RAISE(ABORT, 'hand settlements are append-only');
END;

CREATE TRIGGER results_no_update BEFORE UPDATE ON results
BEGIN
    SELECT RAISE(ABORT, 'hand results are append-only');
END;

CREATE TRIGGER results_no_delete BEFORE DELETE ON results
BEGIN
    SELECT RAISE(ABORT, 'hand results are append-only');
END;

CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

-- A settled hand stays settled.
CREATE TRIGGER hands_done_is_final BEFORE UPDATE OF status ON hands
WHEN OLD.status = 'done' AND NEW.status != 'done'
BEGIN
    SELECT RAISE(ABORT, 'a settled hand cannot change status');
END;
