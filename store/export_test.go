package store

// RecordUsageAt records u into turn seq of agent uuid as the completion transaction does,
// as if it completed at at (unix ms): benchmarks spread turns over days in one
// transaction.
func (t *Tx) RecordUsageAt(at int64, uuid string, seq int64, path, provider string, u *TurnUsage) error {
	now := t.now
	defer func() { t.now = now }()
	t.now = at
	_, err := t.recordUsage(uuid, seq, path, provider, u)
	return err
}

// QueuePassReads are the queue pass's reads (and discovery's every-pass read) by name, and the status lists they are
// written with.
var (
	QueuePassReads = map[string]string{"stuck": queryStuck, "deadlines": queryDeadlines, "next deadline": queryNextDeadline, "queued": queryQueued, "slots": querySlots,
		"unmanaged sessions": queryUnmanagedSessions}
	QueuePassSets = map[string]string{"slots": "'starting','working','idle','blocked','parked'", "gone": "'ended','lost'"}
)
