package herdrtest

// onTarget runs act on the workspace, tab or pane that find resolves id to, with
// s.mu held for both: the shape of every handler that reads or changes one target
// and answers before it lets go of the model. A find error is the answer.
func onTarget[T any](s *Session, id string, find func(string) (T, error), act func(T) (any, error)) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := find(id)
	if err != nil {
		return nil, err
	}
	return act(v)
}

// closeTarget closes the workspace, tab or pane that find resolves id to: under
// s.mu, detach takes it out of the model and returns its panes; their processes are
// killed after s.mu is released (a pane that exits takes s.mu to remove itself).
// The answer is ok, or the find error.
func closeTarget[T any](s *Session, id string, find func(string) (T, error), detach func(T) []*pane) (any, error) {
	s.mu.Lock()
	v, err := find(id)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	panes := detach(v)
	s.mu.Unlock()
	for _, pn := range panes {
		pn.kill()
	}
	return resultOK, nil
}
