package zmtp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

func TestFramingRoundTrip(t *testing.T) {
	tests := [][][]byte{
		{[]byte("one")},
		{{}, []byte("<IDS|MSG>"), bytes.Repeat([]byte("x"), 255), bytes.Repeat([]byte("y"), 256)},
		{bytes.Repeat([]byte{0xff}, 70000), {}, {0}},
	}
	var buf []byte
	for _, msg := range tests {
		buf = AppendMessage(buf, msg)
	}
	r := bufio.NewReader(bytes.NewReader(buf))
	for i, want := range tests {
		got, cmd, err := readMessage(r, 1<<20, 1<<21)
		if err != nil || cmd {
			t.Fatalf("message %d: cmd=%v err=%v", i, cmd, err)
		}
		if len(got) != len(want) {
			t.Fatalf("message %d: %d frames, want %d", i, len(got), len(want))
		}
		for j := range want {
			if !bytes.Equal(got[j], want[j]) {
				t.Errorf("message %d frame %d differs", i, j)
			}
		}
	}
	if _, _, err := readMessage(r, 1<<20, 1<<21); err != io.EOF {
		t.Errorf("after the last message: %v, want EOF", err)
	}
}

func TestReadMessageRejects(t *testing.T) {
	long := func(size uint64) []byte {
		b := []byte{flagLong}
		return append(b, byte(size>>56), byte(size>>48), byte(size>>40), byte(size>>32), byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
	}
	tests := []struct {
		name string
		wire []byte
		want string
	}{
		{"huge frame", long(1 << 40), "exceeds"},
		{"frame over the limit", long(2000), "exceeds"},
		{"reserved flag bits", []byte{0x80, 0}, "flags"},
		{"command inside a message", []byte{flagMore, 1, 'a', flagCommand, 0}, "command"},
		{"truncated", []byte{0, 5, 'a'}, "EOF"},
	}
	for _, tc := range tests {
		_, _, err := readMessage(bufio.NewReader(bytes.NewReader(tc.wire)), 1000, 1500)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// Two 900-byte frames: each under maxFrame, together over maxMessage.
	two := AppendMessage(nil, [][]byte{bytes.Repeat([]byte("a"), 900), bytes.Repeat([]byte("b"), 900)})
	if _, _, err := readMessage(bufio.NewReader(bytes.NewReader(two)), 1000, 1500); err == nil {
		t.Error("message over maxMessage accepted")
	}
}

func TestPeerQueue(t *testing.T) {
	s := &Socket{opts: Options{QueueLen: 2, QueueBytes: 1 << 20}, log: slog.New(slog.DiscardHandler)}
	p := &Peer{s: s, wake: make(chan struct{}, 1), closed: make(chan struct{}), conn: nopConn{}}
	msg := func(i int) [][]byte { return [][]byte{[]byte(fmt.Sprint(i))} }
	for i := range 2 {
		if err := p.enqueue(msg(i), false, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.enqueue(msg(2), false, true); err != ErrQueueFull {
		t.Errorf("third message on a full queue: %v, want ErrQueueFull", err)
	}
	if err := p.enqueue(msg(3), true, true); err != nil {
		t.Errorf("drop-oldest enqueue: %v", err)
	}
	if p.dropped != 1 || string(p.queue[0][0]) != "1" || string(p.queue[1][0]) != "3" {
		t.Errorf("after drop-oldest: dropped=%d queue=%q", p.dropped, p.queue)
	}
	// The byte bound (1 MB): two 600 KB messages do not fit together.
	big := [][]byte{make([]byte, 600<<10)}
	if err := p.enqueue(big, true, true); err != nil || len(p.queue) != 2 || p.dropped != 2 {
		t.Fatalf("big message: %v, %d queued, %d dropped; want 2 queued, 2 dropped", err, len(p.queue), p.dropped)
	}
	if err := p.enqueue(big, true, true); err != nil || len(p.queue) != 1 || p.dropped != 4 {
		t.Errorf("second big message: %v, %d queued, %d dropped; want 1 queued, 4 dropped", err, len(p.queue), p.dropped)
	}
	if err := p.enqueue(big, false, true); err != ErrQueueFull {
		t.Errorf("big message behind a big one without dropping: %v, want ErrQueueFull", err)
	}
	if err := p.enqueue(msg(5), false, true); err != nil {
		t.Errorf("small message behind a big one: %v", err)
	}
	p.close()
	if err := p.enqueue(msg(4), true, true); err != ErrPeerGone {
		t.Errorf("enqueue on a closed peer: %v, want ErrPeerGone", err)
	}
}

type nopConn struct{ net.Conn }

func (nopConn) Close() error { return nil }

// TestInlineWriteHandsOver writes from the sender's goroutine to a peer that
// reads nothing at first: the inline write gives up after
// inlineWriteTimeout, leaving the rest to the writer goroutine, and the
// peer then receives every message whole and in order.
func TestInlineWriteHandsOver(t *testing.T) {
	ours, theirs := net.Pipe()
	defer theirs.Close()
	s := &Socket{opts: DefaultOptions(), log: slog.New(slog.DiscardHandler), progress: make(chan struct{})}
	p := &Peer{s: s, conn: ours, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	s.wg.Add(1)
	go p.writeLoop()
	defer func() { p.close(); s.wg.Wait() }()
	want := [][][]byte{{[]byte("one")}, {[]byte("two"), bytes.Repeat([]byte("2"), 300)}, {[]byte("three")}}
	for _, m := range want[:2] {
		if err := p.enqueue(m, false, true); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	p.flushInline() // nobody reads the pipe: times out
	if d := time.Since(start); d > time.Second {
		t.Fatalf("inline write blocked for %v", d)
	}
	p.enqueue(want[2], false, true)
	p.flushInline() // the tail is the writer goroutine's: returns at once
	r := bufio.NewReader(theirs)
	for i, w := range want {
		got, _, err := readMessage(r, 1<<20, 1<<20)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if len(got) != len(w) || !bytes.Equal(got[0], w[0]) {
			t.Fatalf("message %d = %q, want %q", i, got, w)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		done := p.finished == 3
		p.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("messages never counted as written")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWaitSubscribed checks that WaitSubscribed gives up after its timeout
// while no peer subscribes, returns as soon as one does (also when the
// subscription comes while it waits), and returns at once while one is
// subscribed.
func TestWaitSubscribed(t *testing.T) {
	s := &Socket{conns: map[net.Conn]*Peer{}, done: make(chan struct{})}
	start := time.Now()
	if s.WaitSubscribed(50 * time.Millisecond) {
		t.Fatal("subscribed with no peer")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("gave up after %v, before the timeout", d)
	}
	ours, theirs := net.Pipe()
	defer ours.Close()
	defer theirs.Close()
	p := &Peer{s: s}
	s.mu.Lock()
	s.conns[ours] = p
	s.mu.Unlock()
	go func() {
		time.Sleep(30 * time.Millisecond)
		p.subscribe(true, nil)
	}()
	start = time.Now()
	if !s.WaitSubscribed(10 * time.Second) {
		t.Fatal("the subscription was not seen")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("saw the subscription after %v", d)
	}
	start = time.Now()
	if !s.WaitSubscribed(10*time.Second) || time.Since(start) > time.Second {
		t.Fatal("did not return at once with a subscriber")
	}
	p.subscribe(false, nil)
	close(s.done)
	if s.WaitSubscribed(10 * time.Second) {
		t.Fatal("subscribed after the only subscription was cancelled")
	}
}
