package ws

import (
	"testing"
)

// The outbound queue: Enqueue never blocks and refuses when full or closed; the room
// callback fires once, when at least half the queue is free.
func TestSinkQueueAndRoom(t *testing.T) {
	t.Parallel()
	s := newSink(4)
	for i := range 4 {
		if !s.Enqueue([]byte{byte(i)}) {
			t.Fatalf("frame %d refused with room %d", i, s.Room())
		}
	}
	if s.Enqueue([]byte("x")) || s.Room() != 0 || s.Cap() != 4 {
		t.Fatalf("a full queue took a frame (room %d, cap %d)", s.Room(), s.Cap())
	}
	fired := 0
	s.NotifyRoom(func() { fired++ })
	// The writer takes frames; the callback waits for half the queue.
	<-s.ch
	s.written()
	if fired != 0 {
		t.Fatal("room reported with 3 of 4 places taken")
	}
	<-s.ch
	s.written()
	<-s.ch
	s.written()
	if fired != 1 {
		t.Fatalf("room callback fired %d times, want once", fired)
	}
	// With room already, the callback runs at once.
	s.NotifyRoom(func() { fired++ })
	if fired != 2 {
		t.Fatal("NotifyRoom with a half-empty queue did not call back at once")
	}
	s.Close([]byte("final"))
	if s.Enqueue([]byte("late")) || s.Room() != 0 {
		t.Error("a closed sink took a frame")
	}
	s.Close(nil) // a second close changes nothing
	if string(s.final) != "final" {
		t.Errorf("final frame %q", s.final)
	}
}
