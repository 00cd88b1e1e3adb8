package zmtp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
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

// recordHandler sends the level and message of every record to a channel.
type recordHandler struct{ records chan<- slog.Record }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.records <- r
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestHandshakeFailureLevel: a peer that closes or resets its connection
// during the handshake, as jupyter_client's heartbeat channel does when it
// connects anew after a late beat (under high load), is logged at debug
// level; a warning of it ("ZMTP handshake failed … broken pipe") reached a
// jupyter console user's terminal, which is the kernel's stderr. A peer
// that speaks no ZMTP is still warned of.
func TestHandshakeFailureLevel(t *testing.T) {
	for _, tc := range []struct {
		name string
		peer func(c *net.TCPConn)
		want slog.Level
	}{
		{"closes at once", func(c *net.TCPConn) { c.Close() }, slog.LevelDebug},
		{"resets at once", func(c *net.TCPConn) { c.SetLinger(0); c.Close() }, slog.LevelDebug},
		{"reads the greeting, then closes", func(c *net.TCPConn) {
			io.ReadFull(c, make([]byte, 64))
			c.Close()
		}, slog.LevelDebug},
		{"reads the greeting, sends half of one, closes", func(c *net.TCPConn) {
			io.ReadFull(c, make([]byte, 64))
			c.Write([]byte{0xff, 0, 0, 0, 0})
			c.Close()
		}, slog.LevelDebug},
		{"reads part of the greeting, then resets", func(c *net.TCPConn) {
			io.ReadFull(c, make([]byte, 10))
			c.SetLinger(0)
			c.Close()
		}, slog.LevelDebug},
		{"not ZMTP", func(c *net.TCPConn) {
			c.Write([]byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n" + strings.Repeat(" ", 64)))
			io.Copy(io.Discard, c)
			c.Close()
		}, slog.LevelWarn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			records := make(chan slog.Record, 16)
			s, err := Listen("heartbeat", Rep, "tcp", "127.0.0.1:0", DefaultOptions(), slog.New(recordHandler{records}))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c, err := net.Dial("tcp", s.ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			go tc.peer(c.(*net.TCPConn))
			defer c.Close()
			for {
				select {
				case r := <-records:
					if r.Message != "ZMTP handshake failed" {
						continue
					}
					var cause string
					r.Attrs(func(a slog.Attr) bool {
						if a.Key == "err" {
							cause = a.Value.String()
						}
						return true
					})
					t.Logf("%v: %s", r.Level, cause)
					if r.Level != tc.want {
						t.Errorf("logged at %v, want %v: %s", r.Level, tc.want, cause)
					}
					return
				case <-time.After(time.Minute):
					t.Fatal("no record of the failed handshake")
				}
			}
		})
	}
}

// TestPeerLeft: the errors of a peer gone during the handshake, wrapped as
// zmq4 wraps them (the broken pipe is the one seen on a console user's
// terminal), against those of a peer that is there and wrong.
func TestPeerLeft(t *testing.T) {
	wrapped := func(err error) error {
		return fmt.Errorf("zmq4: could not initialize ZMTP connection: %w",
			fmt.Errorf("zmq4: could not exchange greetings: %w", err))
	}
	opError := func(op string, errno syscall.Errno) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{wrapped(fmt.Errorf("zmq4: could not send greeting: %w", opError("write", syscall.EPIPE))), true},
		{wrapped(fmt.Errorf("could not read ZMTP greeting: %w", opError("read", syscall.ECONNRESET))), true},
		{wrapped(fmt.Errorf("could not read ZMTP greeting: %w", io.EOF)), true},
		{wrapped(fmt.Errorf("could not read ZMTP greeting: %w", io.ErrUnexpectedEOF)), true},
		{wrapped(errors.New("invalid ZMTP signature header: zmq4: invalid greeting received")), false},
		{wrapped(fmt.Errorf("could not read ZMTP greeting: %w", os.ErrDeadlineExceeded)), false},
		{errors.New(`zmq4: peer="PUB" not compatible with "REP"`), false},
	} {
		if got := peerLeft(tc.err); got != tc.want {
			t.Errorf("peerLeft(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
