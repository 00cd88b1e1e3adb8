package kernel

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
	"github.com/go-zeromq/zmq4"
)

// url returns the ZeroMQ endpoint of a kernel port.
func (ci ConnectionInfo) url(port int) string {
	if ci.Transport == "ipc" {
		return "ipc://" + ci.IP + "-" + strconv.Itoa(port)
	}
	return "tcp://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}

// goClient is a minimal Jupyter client on zmq4 sockets, for tests that need
// to send what no well-behaved client would.
type goClient struct {
	t        testing.TB
	sign     *signer
	session  string
	n        atomic.Int64
	shell    zmq4.Socket
	control  zmq4.Socket
	iopub    zmq4.Socket
	shellIn  chan *Message
	ctrlIn   chan *Message
	iopubIn  chan *Message
	cancel   context.CancelFunc
	ci       ConnectionInfo
	rawCount atomic.Int64 // frames received that did not decode
}

func dialClient(t testing.TB, tk *testKernel) *goClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sign, _ := newSigner(tk.conn.SignatureScheme, tk.conn.Key)
	c := &goClient{
		t: t, sign: sign, session: newUUID(), cancel: cancel, ci: tk.conn,
		shell:   zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity(newUUID()))),
		control: zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity(newUUID()))),
		iopub:   zmq4.NewSub(ctx),
		shellIn: make(chan *Message, 1<<16), ctrlIn: make(chan *Message, 1<<16), iopubIn: make(chan *Message, 1<<18),
	}
	for _, d := range []struct {
		s    zmq4.Socket
		port int
		in   chan *Message
	}{{c.shell, tk.conn.ShellPort, c.shellIn}, {c.control, tk.conn.ControlPort, c.ctrlIn}, {c.iopub, tk.conn.IOPubPort, c.iopubIn}} {
		if err := d.s.Dial(tk.conn.url(d.port)); err != nil {
			t.Fatal(err)
		}
		go c.read(d.s, d.in)
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	c.waitIOPub()
	return c
}

func (c *goClient) close() {
	c.cancel()
	c.shell.Close()
	c.control.Close()
	c.iopub.Close()
}

func (c *goClient) read(s zmq4.Socket, in chan *Message) {
	for {
		msg, err := s.Recv()
		if err != nil {
			return
		}
		m, err := decodeMessage(msg.Frames, c.sign)
		if err != nil {
			c.rawCount.Add(1)
			continue
		}
		in <- m
	}
}

// waitIOPub sends kernel_info until its status arrives on iopub, so the
// subscription is known to be in place.
func (c *goClient) waitIOPub() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.reply(c.shellIn, id, 10*time.Second)
		timeout := time.After(200 * time.Millisecond)
	wait:
		for {
			select {
			case m := <-c.iopubIn:
				if parentID(m) == id {
					// The subscription may have started between busy and idle.
					if !(m.Header.MsgType == "status" && contentField(m, "execution_state") == "idle") {
						c.drainIOPub(id)
					}
					return
				}
			case <-timeout:
				break wait
			}
		}
	}
	c.t.Fatal("iopub subscription never became active")
}

// drainIOPub discards iopub messages up to the idle status of msgID.
func (c *goClient) drainIOPub(msgID string) {
	c.collect(msgID, 10*time.Second)
}

// frames returns the signed wire frames of a request.
func (c *goClient) frames(msgType string, content any) (string, [][]byte) {
	id := c.session + "-" + strconv.FormatInt(c.n.Add(1), 10)
	body, err := json.Marshal(content)
	if err != nil {
		c.t.Fatal(err)
	}
	m := &Message{
		Header:  Header{MsgID: id, Session: c.session, Username: "test", Date: time.Now().UTC().Format(time.RFC3339Nano), MsgType: msgType, Version: "5.3"},
		Content: body,
	}
	frames, err := m.encode(c.sign)
	if err != nil {
		c.t.Fatal(err)
	}
	return id, frames
}

func (c *goClient) send(s zmq4.Socket, msgType string, content any) string {
	id, frames := c.frames(msgType, content)
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return id
}

func parentID(m *Message) string {
	var h Header
	json.Unmarshal(m.ParentHeader, &h)
	return h.MsgID
}

// reply waits for the reply to msgID on in.
func (c *goClient) reply(in chan *Message, msgID string, timeout time.Duration) *Message {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m := <-in:
			if parentID(m) == msgID {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no reply to %s within %v", msgID, timeout)
			return nil
		}
	}
}

// collect returns the iopub messages of msgID up to its idle status.
func (c *goClient) collect(msgID string, timeout time.Duration) []*Message {
	c.t.Helper()
	var out []*Message
	deadline := time.After(timeout)
	for {
		select {
		case m := <-c.iopubIn:
			if parentID(m) != msgID {
				continue
			}
			out = append(out, m)
			if m.Header.MsgType == "status" && contentField(m, "execution_state") == "idle" {
				return out
			}
		case <-deadline:
			c.t.Fatalf("no idle status for %s within %v (got %d messages)", msgID, timeout, len(out))
			return nil
		}
	}
}

// contentField returns a top-level string field of m's content.
func contentField(m *Message, key string) string {
	var v map[string]any
	json.Unmarshal(m.Content, &v)
	s, _ := v[key].(string)
	return s
}

// execute runs code and returns the reply and the iopub messages.
func (c *goClient) execute(code string) (*Message, []*Message) {
	c.t.Helper()
	id := c.send(c.shell, "execute_request", map[string]any{"code": code, "silent": false})
	r := c.reply(c.shellIn, id, 20*time.Second)
	return r, c.collect(id, 20*time.Second)
}

// rawPeer opens a ZMTP connection of the given socket type to addr without
// any zmq4 socket machinery: the test decides when (if ever) to read.
func rawPeer(t testing.TB, ci ConnectionInfo, port int, typ zmq4.SocketType) net.Conn {
	t.Helper()
	network, addr := ci.endpoint(port)
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zmq4.Open(conn, zmtp.NullSecurity{}, typ, zmq4.SocketIdentity(""), false, nil); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}
