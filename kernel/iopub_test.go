package kernel

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
	"github.com/go-zeromq/zmq4"
)

// TestIOPubStalledSubscriber connects a subscriber that never reads while
// 15 cells write 12 MB to iopub. A reading subscriber (whose queue drains
// between cells) must still get every message in order and every reply must
// come; the stalled subscriber's queue overflows (oldest dropped, logged)
// and it is disconnected once a write has blocked for writeTimeout.
func TestIOPubStalledSubscriber(t *testing.T) {
	opts := zmtp.DefaultOptions()
	opts.QueueLen = 256
	opts.WriteTimeout = 2 * time.Second
	tk := startKernel(t, "tcp", "key", fakeEngine{}, opts)
	stalled := rawPeer(t, tk.conn, tk.conn.IOPubPort, zmq4.Sub)
	defer stalled.Close()
	if _, err := stalled.Write(zmtp.AppendMessage(nil, [][]byte{{1}})); err != nil { // subscribe to everything
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
	deadline := time.Now().Add(3 * opts.WriteTimeout)
	for tk.k.iopub.Peers() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tk.k.iopub.Peers(); got != 1 {
		t.Errorf("stalled subscriber still connected: %d iopub peers, want 1", got)
	}
}

// TestIOPubChurn connects and disconnects subscribers 300 times while cells
// stream; a steady subscriber must get everything, and no peer may leak.
func TestIOPubChurn(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
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
					if _, err := zmq4.Open(conn, zmtp.NullSecurity{}, zmq4.Sub, zmq4.SocketIdentity(""), false, nil); err != nil {
						return // the kernel may see a half-open connection; that is the point
					}
					conn.Write(zmtp.AppendMessage(nil, [][]byte{{1}}))
					switch mode {
					case 0: // leave at once
					case 1: // read a little
						conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
						io.Copy(io.Discard, conn)
					case 2: // leave mid-frame from our side: write half a frame
						conn.Write([]byte{1 /* more */, 200, 'x'})
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
	for tk.k.iopub.Peers() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tk.k.iopub.Peers(); got != 1 {
		t.Errorf("%d iopub peers after churn, want 1 (the steady client)", got)
	}
	if r, _ := c.execute("still fine"); contentField(r, "status") != "ok" {
		t.Error("kernel unhealthy after churn")
	}
	t.Logf("steady subscriber received all %d stream messages during 300 connect/disconnect cycles", total)
}

// TestKernelInfoWaitsForIOPub sends kernel_info_request from a client whose
// iopub subscription comes 300 ms later, as a slow client's can: the reply
// must wait for the subscription, so that the request's busy and idle
// status reach the client (jupyter_console 6.4, which takes the reply to
// mean ready, otherwise waits forever for its first cell's idle status). A
// client that never subscribes gets its reply after iopubJoinWait.
func TestKernelInfoWaitsForIOPub(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sign, _ := newSigner(tk.conn.SignatureScheme, tk.conn.Key)
	c := &goClient{t: t, sign: sign, session: newUUID(), cancel: cancel, ci: tk.conn,
		shell:   zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity(newUUID()))),
		shellIn: make(chan *Message, 64), iopubIn: make(chan *Message, 64)}
	defer c.shell.Close()
	if err := c.shell.Dial(tk.conn.url(tk.conn.ShellPort)); err != nil {
		t.Fatal(err)
	}
	go c.read(c.shell, c.shellIn)

	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	select {
	case m := <-c.shellIn:
		t.Fatalf("%s answered before the client subscribed to iopub", m.Header.MsgType)
	case <-time.After(300 * time.Millisecond):
	}
	c.iopub = zmq4.NewSub(ctx)
	defer c.iopub.Close()
	if err := c.iopub.Dial(tk.conn.url(tk.conn.IOPubPort)); err != nil {
		t.Fatal(err)
	}
	go c.read(c.iopub, c.iopubIn)
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	c.reply(c.shellIn, id, 10*time.Second)
	var states []string
	for _, m := range c.collect(id, 5*time.Second) {
		if m.Header.MsgType == "status" {
			states = append(states, contentField(m, "execution_state"))
		}
	}
	if strings.Join(states, " ") != "busy idle" {
		t.Errorf("status of kernel_info on iopub: %v, want busy, idle", states)
	}

	// A second client with no iopub at all is answered after the wait.
	lone := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity(newUUID())))
	defer lone.Close()
	if err := lone.Dial(tk.conn.url(tk.conn.ShellPort)); err != nil {
		t.Fatal(err)
	}
	loneIn := make(chan *Message, 8)
	go c.read(lone, loneIn)
	c.iopub.Close() // now no subscriber
	deadline := time.Now().Add(5 * time.Second)
	for tk.k.iopub.Peers() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	id = c.send(lone, "kernel_info_request", map[string]any{})
	c.reply(loneIn, id, 10*time.Second)
	if took := time.Since(start); took < iopubJoinWait-100*time.Millisecond {
		t.Errorf("kernel_info with no iopub subscriber answered after %v, want about %v", took, iopubJoinWait)
	}
}
