package kernel

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

func TestFramingRoundTrip(t *testing.T) {
	tests := [][][]byte{
		{[]byte("one")},
		{{}, []byte("<IDS|MSG>"), bytes.Repeat([]byte("x"), 255), bytes.Repeat([]byte("y"), 256)},
		{bytes.Repeat([]byte{0xff}, 70000), {}, {0}},
	}
	var buf []byte
	for _, msg := range tests {
		buf = appendMessage(buf, msg)
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
	two := appendMessage(nil, [][]byte{bytes.Repeat([]byte("a"), 900), bytes.Repeat([]byte("b"), 900)})
	if _, _, err := readMessage(bufio.NewReader(bytes.NewReader(two)), 1000, 1500); err == nil {
		t.Error("message over maxMessage accepted")
	}
}

func TestPeerQueue(t *testing.T) {
	s := &zsocket{opts: socketOptions{queueLen: 2, queueBytes: 1 << 20}, log: slog.New(slog.DiscardHandler)}
	p := &peer{s: s, wake: make(chan struct{}, 1), closed: make(chan struct{}), conn: nopConn{}}
	msg := func(i int) [][]byte { return [][]byte{[]byte(fmt.Sprint(i))} }
	for i := range 2 {
		if err := p.enqueue(msg(i), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.enqueue(msg(2), false); err != errQueueFull {
		t.Errorf("third message on a full queue: %v, want errQueueFull", err)
	}
	if err := p.enqueue(msg(3), true); err != nil {
		t.Errorf("drop-oldest enqueue: %v", err)
	}
	if p.dropped != 1 || string(p.queue[0][0]) != "1" || string(p.queue[1][0]) != "3" {
		t.Errorf("after drop-oldest: dropped=%d queue=%q", p.dropped, p.queue)
	}
	// The byte bound (1 MB): two 600 KB messages do not fit together.
	big := [][]byte{make([]byte, 600<<10)}
	if err := p.enqueue(big, true); err != nil || len(p.queue) != 2 || p.dropped != 2 {
		t.Fatalf("big message: %v, %d queued, %d dropped; want 2 queued, 2 dropped", err, len(p.queue), p.dropped)
	}
	if err := p.enqueue(big, true); err != nil || len(p.queue) != 1 || p.dropped != 4 {
		t.Errorf("second big message: %v, %d queued, %d dropped; want 1 queued, 4 dropped", err, len(p.queue), p.dropped)
	}
	if err := p.enqueue(big, false); err != errQueueFull {
		t.Errorf("big message behind a big one without dropping: %v, want errQueueFull", err)
	}
	if err := p.enqueue(msg(5), false); err != nil {
		t.Errorf("small message behind a big one: %v", err)
	}
	p.close()
	if err := p.enqueue(msg(4), true); err != errPeerGone {
		t.Errorf("enqueue on a closed peer: %v, want errPeerGone", err)
	}
}

type nopConn struct{ net.Conn }

func (nopConn) Close() error { return nil }

// TestIOPubStalledSubscriber connects a subscriber that never reads while
// 15 cells write 12 MB to iopub. A reading subscriber (whose queue drains
// between cells) must still get every message in order and every reply must
// come; the stalled subscriber's queue overflows (oldest dropped, logged)
// and it is disconnected once a write has blocked for writeTimeout.
func TestIOPubStalledSubscriber(t *testing.T) {
	opts := defaultSocketOptions()
	opts.queueLen = 256
	opts.writeTimeout = 2 * time.Second
	tk := startKernel(t, "tcp", "key", fakeEngine{}, opts)
	stalled := rawPeer(t, tk.conn, tk.conn.IOPubPort, zmq4.Sub)
	defer stalled.Close()
	if _, err := stalled.Write(appendMessage(nil, [][]byte{{1}})); err != nil { // subscribe to everything
		t.Fatal(err)
	}
	c := dialClient(t, tk)
	const cells, n, size = 15, 200, 4096
	start := time.Now()
	for cell := 0; cell < cells; cell++ {
		r, io := c.execute(fmt.Sprintf("spam %d %d", n, size))
		if st := contentField(r, "status"); st != "ok" {
			t.Fatalf("cell %d: reply status %q", cell, st)
		}
		next := 0
		for _, m := range io {
			if m.Header.MsgType != "stream" {
				continue
			}
			if text := contentField(m, "text"); !strings.HasPrefix(text, fmt.Sprint(next)+":") {
				t.Fatalf("cell %d: stream message %d out of order or missing: %.20q", cell, next, text)
			}
			next++
		}
		if next != n {
			t.Fatalf("cell %d: reading subscriber got %d of %d stream messages", cell, next, n)
		}
	}
	elapsed := time.Since(start)
	if !strings.Contains(tk.logs.String(), "slow subscriber") {
		t.Error("the stalled subscriber's queue never overflowed: the test did not stall it")
	}
	t.Logf("%d cells, %d MB: all delivered to the reading subscriber in %v with a stalled one connected",
		cells, cells*n*size>>20, elapsed.Round(time.Millisecond))
	deadline := time.Now().Add(3 * opts.writeTimeout)
	for tk.k.iopub.peers() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tk.k.iopub.peers(); got != 1 {
		t.Errorf("stalled subscriber still connected: %d iopub peers, want 1", got)
	}
}

// TestIOPubChurn connects and disconnects subscribers 300 times while cells
// stream; a steady subscriber must get everything, and no peer may leak.
func TestIOPubChurn(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, defaultSocketOptions())
	c := dialClient(t, tk)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var connects sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; i < 100; i++ {
				select {
				case <-stop:
					return
				default:
				}
				network, addr := tk.conn.endpoint(tk.conn.IOPubPort)
				conn, err := net.Dial(network, addr)
				if err != nil {
					t.Error(err)
					return
				}
				connects.Add(1)
				mode := rng.IntN(3)
				go func() {
					defer connects.Done()
					defer conn.Close()
					if _, err := zmq4.Open(conn, nullSecurity{}, zmq4.Sub, zmq4.SocketIdentity(""), false, nil); err != nil {
						return // the kernel may see a half-open connection; that is the point
					}
					conn.Write(appendMessage(nil, [][]byte{{1}}))
					switch mode {
					case 0: // leave at once
					case 1: // read a little
						conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
						io.Copy(io.Discard, conn)
					case 2: // leave mid-frame from our side: write half a frame
						conn.Write([]byte{flagMore, 200, 'x'})
					}
				}()
				time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
			}
		}()
	}
	total := 0
	for round := 0; round < 5; round++ {
		_, io := c.execute("spam 500 100")
		got := 0
		for _, m := range io {
			if m.Header.MsgType == "stream" {
				if !strings.HasPrefix(contentField(m, "text"), fmt.Sprint(got)+":") {
					t.Fatalf("round %d: stream message %d out of order", round, got)
				}
				got++
			}
		}
		if got != 500 {
			t.Fatalf("round %d: steady subscriber got %d of 500", round, got)
		}
		total += got
	}
	wg.Wait()
	connects.Wait()
	close(stop)
	deadline := time.Now().Add(5 * time.Second)
	for tk.k.iopub.peers() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tk.k.iopub.peers(); got != 1 {
		t.Errorf("%d iopub peers after churn, want 1 (the steady client)", got)
	}
	if r, _ := c.execute("still fine"); contentField(r, "status") != "ok" {
		t.Error("kernel unhealthy after churn")
	}
	t.Logf("steady subscriber received all %d stream messages during 300 connect/disconnect cycles", total)
}
