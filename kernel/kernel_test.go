package kernel

import (
	"encoding/json"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
	"github.com/go-zeromq/zmq4"
)

func TestReadConnectionFile(t *testing.T) {
	good := map[string]any{"transport": "tcp", "ip": "127.0.0.1", "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
		"control_port": 4, "hb_port": 5, "signature_scheme": "hmac-sha256", "key": "k", "kernel_name": "copulang"}
	tests := []struct {
		name    string
		key     string
		value   any
		wantErr string
	}{
		{"good", "", nil, ""},
		{"ipc", "transport", "ipc", ""},
		{"unsigned", "key", "", ""},
		{"udp", "transport", "udp", "transport"},
		{"no ip", "ip", "", "ip"},
		{"port 0", "hb_port", 0, "hb_port"},
		{"port too big", "shell_port", 70000, "shell_port"},
		{"bad scheme", "signature_scheme", "rot13", "signature_scheme"},
		{"port not a number", "iopub_port", "x", "connection file"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		m := make(map[string]any)
		for k, v := range good {
			m[k] = v
		}
		if tc.key != "" {
			m[tc.key] = tc.value
		}
		b, _ := json.Marshal(m)
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ci, err := ReadConnectionFile(path)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if ci.ControlPort != 4 || ci.IP != "127.0.0.1" {
				t.Errorf("%s: parsed %+v", tc.name, ci)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.wantErr)
		}
	}
	if _, err := ReadConnectionFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

// waitInput waits for the execute_input of msgID, i.e. the cell has started.
func (c *goClient) waitInput(msgID string) {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-c.iopubIn:
			if parentID(m) == msgID && m.Header.MsgType == "execute_input" {
				return
			}
		case <-deadline:
			c.t.Fatal("cell never started")
		}
	}
}

func TestInterrupt(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)

	// An interrupt while idle must not affect the next cell.
	id := c.send(c.control, "interrupt_request", map[string]any{})
	if r := c.reply(c.ctrlIn, id, 5*time.Second); r.Header.MsgType != "interrupt_reply" || contentField(r, "status") != "ok" {
		t.Fatalf("interrupt_reply %s %s", r.Header.MsgType, r.Content)
	}
	if r, _ := c.execute("after idle interrupt"); contentField(r, "status") != "ok" {
		t.Fatalf("cell after an idle interrupt: %s", r.Content)
	}

	for _, how := range []string{"control", "SIGINT"} {
		id := c.send(c.shell, "execute_request", map[string]any{"code": "sleep"})
		c.waitInput(id)
		// Heartbeat and control keep answering while the cell runs.
		hb := zmq4.NewReq(t.Context())
		if err := hb.Dial(tk.conn.url(tk.conn.HBPort)); err != nil {
			t.Fatal(err)
		}
		if err := hb.Send(zmq4.NewMsgString("ping")); err != nil {
			t.Fatal(err)
		}
		if m, err := hb.Recv(); err != nil || string(m.Frames[0]) != "ping" {
			t.Fatalf("heartbeat during a cell: %v %q", err, m.Frames)
		}
		hb.Close()
		ki := c.send(c.control, "kernel_info_request", map[string]any{})
		c.reply(c.ctrlIn, ki, 5*time.Second)

		start := time.Now()
		if how == "control" {
			c.send(c.control, "interrupt_request", map[string]any{})
		} else {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		// The cell never ends by itself: its reply is the interrupt's
		// doing. How long it took is logged, not asserted (a loaded
		// machine may delay it).
		r := c.reply(c.shellIn, id, 5*time.Second)
		latency := time.Since(start)
		if contentField(r, "status") != "error" || contentField(r, "ename") != "KeyboardInterrupt" {
			t.Errorf("%s: reply %s", how, r.Content)
		}
		t.Logf("interrupt by %s answered in %v", how, latency)
		c.collect(id, 5*time.Second)
	}
	if r, _ := c.execute("alive"); contentField(r, "status") != "ok" {
		t.Fatalf("cell after interrupts: %s", r.Content)
	}
}

// TestMalformedMessages throws 1,000 bad messages and connections at the
// kernel (fuzzed frames, bad JSON, wrong signatures, unknown types,
// malformed content, garbage and oversized ZMTP) and checks that only the
// answerable ones were answered and that it still answers correctly.
func TestMalformedMessages(t *testing.T) {
	opts := zmtp.DefaultOptions()
	opts.MaxFrame = 1 << 20
	tk := startKernel(t, "tcp", "the key", fakeEngine{}, opts)
	c := dialClient(t, tk)
	rng := rand.New(rand.NewPCG(5, 5))
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	other, _ := newSigner("hmac-sha256", "another key")
	sockets := []zmq4.Socket{c.shell, c.control}
	send := func(frames [][]byte) {
		if err := sockets[rng.IntN(2)].SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	const hdr = `{"msg_id":"bad","session":"s","username":"u","date":"","msg_type":"kernel_info_request","version":"5.3"}`
	sent, answerable := 0, 0
	for i := 0; i < 300; i++ { // random frames, sometimes with a delimiter
		frames := make([][]byte, 1+rng.IntN(8))
		for j := range frames {
			frames[j] = randBytes(rng.IntN(64))
		}
		if rng.IntN(2) == 0 {
			frames[rng.IntN(len(frames))] = []byte(delimiter)
		}
		send(frames)
		sent++
	}
	for i := 0; i < 200; i++ { // correctly signed, broken JSON
		h := hdr[:rng.IntN(len(hdr))]
		content := `{"code":` + string(randBytes(3))
		if rng.IntN(2) == 0 {
			h, content = hdr, "[]"
		}
		send(wire(c.sign, nil, "sign", h, "{}", "{}", content))
		sent++
	}
	for i := 0; i < 200; i++ { // wrong signatures
		switch i % 4 {
		case 0:
			send(wire(other, nil, "sign", hdr, "{}", "{}", "{}"))
		case 1:
			send(wire(c.sign, nil, "", hdr, "{}", "{}", "{}"))
		case 2:
			f := wire(c.sign, nil, "sign", hdr, "{}", "{}", "{}")
			f[1][rng.IntN(len(f[1]))] ^= 1
			send(f)
		case 3: // signature of a different content
			f := wire(c.sign, nil, "sign", hdr, "{}", "{}", "{}")
			f[5] = []byte(`{"x":1}`)
			send(f)
		}
		sent++
	}
	for i := 0; i < 150; i++ { // well signed, unknown types: status only, no reply
		_, f := c.frames("no_such_request_"+string(rune('a'+i%26)), map[string]any{})
		send(f)
		sent++
	}
	for i := 0; i < 50; i++ { // well signed requests with nonsense content: answered with an error
		id, f := c.frames("execute_request", map[string]any{"code": 42, "silent": "no"})
		if err := c.shell.SendMulti(zmq4.NewMsgFrom(f...)); err != nil {
			t.Fatal(err)
		}
		r := c.reply(c.shellIn, id, 5*time.Second)
		if contentField(r, "status") != "error" {
			t.Fatalf("nonsense execute_request: %s", r.Content)
		}
		sent++
		answerable++
	}
	network, _ := tk.conn.endpoint(tk.conn.ShellPort)
	ports := []int{tk.conn.ShellPort, tk.conn.ControlPort, tk.conn.StdinPort, tk.conn.IOPubPort, tk.conn.HBPort}
	for i := 0; i < 100; i++ { // garbage connections and oversized frames
		port := ports[i%len(ports)]
		if i%2 == 0 {
			_, addr := tk.conn.endpoint(port)
			conn, err := net.Dial(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			conn.Write(randBytes(1 + rng.IntN(200)))
			conn.Close()
		} else {
			typ := map[int]zmq4.SocketType{tk.conn.IOPubPort: zmq4.Sub, tk.conn.HBPort: zmq4.Req}[port]
			if typ == "" {
				typ = zmq4.Dealer
			}
			conn := rawPeer(t, tk.conn, port, typ)
			conn.Write([]byte{0x02 /* long */, 0, 0, 1, 0, 0, 0, 0, 0}) // a 1 TB frame
			conn.Close()
		}
		sent++
	}
	if sent != 1000 {
		t.Fatalf("sent %d malformed messages, want 1000", sent)
	}
	// Still answering, and correctly.
	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	r := c.reply(c.shellIn, id, 10*time.Second)
	var info struct {
		ProtocolVersion string       `json:"protocol_version"`
		Language        LanguageInfo `json:"language_info"`
	}
	json.Unmarshal(r.Content, &info)
	if info.ProtocolVersion != "5.3" || info.Language.Name != "copulang" {
		t.Fatalf("kernel_info after the barrage: %s", r.Content)
	}
	res, io := c.execute("hello")
	if contentField(res, "status") != "ok" {
		t.Fatalf("execute after the barrage: %s", res.Content)
	}
	found := false
	for _, m := range io {
		if m.Header.MsgType == "execute_result" && strings.Contains(string(m.Content), `"text/plain":"hello"`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no execute_result after the barrage")
	}
	// Only the 50 answerable requests (plus the checks above) got replies.
	extra := len(c.shellIn) + len(c.ctrlIn)
	if extra != 0 {
		t.Errorf("%d unexpected replies to malformed messages", extra)
	}
	if n := c.rawCount.Load(); n != 0 {
		t.Errorf("%d undecodable messages from the kernel", n)
	}
	logs := tk.logs.String()
	for _, want := range []string{"signature does not verify", "no <IDS|MSG> delimiter", "ignoring unknown message type", "handshake failed", "exceeds the limit"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

// TestSendErrorSurvival: replies to a client that vanished fail, are
// logged, and the kernel carries on.
func TestSendErrorSurvival(t *testing.T) {
	tk := startKernel(t, "ipc", "key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	// A raw client sends an execute and disconnects before the reply.
	quitter := rawPeer(t, tk.conn, tk.conn.ShellPort, zmq4.Dealer)
	_, f := c.frames("execute_request", map[string]any{"code": "wait 200"})
	if _, err := quitter.Write(zmtp.AppendMessage(nil, f)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	quitter.Close()
	// A subscriber leaves in the middle of a large output.
	sub := rawPeer(t, tk.conn, tk.conn.IOPubPort, zmq4.Sub)
	sub.Write(zmtp.AppendMessage(nil, [][]byte{{1}}))
	id := c.send(c.shell, "execute_request", map[string]any{"code": "spam 2000 1000"})
	time.Sleep(5 * time.Millisecond)
	sub.Close()
	if r := c.reply(c.shellIn, id, 10*time.Second); contentField(r, "status") != "ok" {
		t.Fatalf("spam reply %s", r.Content)
	}
	c.collect(id, 10*time.Second)
	if !strings.Contains(tk.logs.String(), "send failed") {
		t.Error("the failed send of the vanished client's reply was not logged")
	}
	if r, _ := c.execute("alive"); contentField(r, "status") != "ok" {
		t.Fatalf("after send errors: %s", r.Content)
	}
}

func TestShutdown(t *testing.T) {
	for _, onShell := range []bool{false, true} {
		tk := startKernel(t, "ipc", "", fakeEngine{}, zmtp.DefaultOptions())
		c := dialClient(t, tk)
		sock, in := c.control, c.ctrlIn
		if onShell {
			sock, in = c.shell, c.shellIn
		}
		id := c.send(sock, "shutdown_request", map[string]any{"restart": true})
		r := c.reply(in, id, 5*time.Second)
		var content map[string]any
		json.Unmarshal(r.Content, &content)
		if r.Header.MsgType != "shutdown_reply" || content["status"] != "ok" || content["restart"] != true {
			t.Errorf("shutdown reply %s %s", r.Header.MsgType, r.Content)
		}
		err, stopped := tk.wait(5 * time.Second)
		if !stopped || err != nil {
			t.Fatalf("after shutdown_request: stopped=%v err=%v", stopped, err)
		}
		if _, err := os.Stat(tk.conn.IP + "-1"); !os.IsNotExist(err) {
			t.Errorf("ipc socket file left behind: %v", err)
		}
	}
}

// TestEmptyCellTakesNoCount: a cell of nothing or blanks takes no
// execution count (its reply carries the last one), as IPython's kernel
// does; the next cell takes the next count.
func TestEmptyCellTakesNoCount(t *testing.T) {
	tk := startKernel(t, "tcp", "count-key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	count := func(r *Message) float64 {
		var v struct {
			Count float64 `json:"execution_count"`
		}
		json.Unmarshal(r.Content, &v)
		return v.Count
	}
	for k, want := range []struct {
		code  string
		count float64
	}{{"a", 1}, {"", 1}, {"  \n\t", 1}, {"b", 2}} {
		r, _ := c.execute(want.code)
		if got := count(r); contentField(r, "status") != "ok" || got != want.count {
			t.Errorf("cell %d %q: status %s, execution_count %v, want ok, %v", k+1, want.code, contentField(r, "status"), got, want.count)
		}
	}
}

// TestEngineGetsTheExecutionCount: the engine is told each cell's
// execution count (the session names an earlier cell by it), and 0 for a
// cell that takes none (store_history false), so that no later message
// names a count the notebook never showed.
func TestEngineGetsTheExecutionCount(t *testing.T) {
	tk := startKernel(t, "tcp", "count-key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	for k, want := range []struct {
		store bool
		text  string
	}{{true, "cell 1"}, {false, "cell 0"}, {true, "cell 2"}} {
		id := c.send(c.shell, "execute_request", map[string]any{"code": "count", "silent": false, "store_history": want.store})
		c.reply(c.shellIn, id, 20*time.Second)
		got := ""
		for _, m := range c.collect(id, 20*time.Second) {
			if m.Header.MsgType == "execute_result" {
				var v struct {
					Data map[string]string `json:"data"`
				}
				json.Unmarshal(m.Content, &v)
				got = v.Data["text/plain"]
			}
		}
		if got != want.text {
			t.Errorf("request %d (store_history %v): the engine saw %q, want %q", k+1, want.store, got, want.text)
		}
	}
}

// TestPagePayload: a page (the answer to WORD? in a notebook) is the
// execute_reply's "page" payload, which Notebook shows in its pager and
// jupyter console prints (TestJupyterConsole).
func TestPagePayload(t *testing.T) {
	tk := startKernel(t, "tcp", "page-key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	r, _ := c.execute("page fit")
	var reply struct {
		Status  string           `json:"status"`
		Payload []map[string]any `json:"payload"`
	}
	if err := json.Unmarshal(r.Content, &reply); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"source": "page", "data": map[string]any{"text/plain": "paged fit"}, "start": float64(0)}
	if reply.Status != "ok" || len(reply.Payload) != 1 || !reflect.DeepEqual(reply.Payload[0], want) {
		t.Errorf("execute_reply: status %q, payload %v; want one %v", reply.Status, reply.Payload, want)
	}
}

// TestStatusStaysBusyDuringCell sends, while a cell runs, the requests a
// frontend or a second client sends meanwhile (Notebook 6's Shift-Tab is an
// inspect_request; JupyterLab's inspector, a console's is_complete), each
// answered at once with its own busy and idle statuses. Frontends take the
// latest status for the kernel's state whatever its parent (Notebook 6 then
// shows Kernel Idle, and turns kernel completion back on, for the rest of a
// long fit: found in Notebook 6 in Chromium), so every idle status other
// than the cell's own, until the cell's, must be followed at once by the
// cell's busy status again.
func TestStatusStaysBusyDuringCell(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	cell := c.send(c.shell, "execute_request", map[string]any{"code": "sleep"})
	c.waitInput(cell)

	side := map[string]bool{}
	for _, req := range []struct {
		msgType string
		content map[string]any
	}{
		{"inspect_request", map[string]any{"code": "fit", "cursor_pos": 2, "detail_level": 0}},
		{"complete_request", map[string]any{"code": "fi", "cursor_pos": 2}},
		{"is_complete_request", map[string]any{"code": "model {"}},
		{"history_request", map[string]any{"hist_access_type": "tail", "n": 10}},
		{"kernel_info_request", map[string]any{}},
		{"comm_info_request", map[string]any{}},
	} {
		id := c.send(c.shell, req.msgType, req.content)
		c.reply(c.shellIn, id, 5*time.Second)
		side[id] = true
	}
	id := c.send(c.control, "kernel_info_request", map[string]any{})
	c.reply(c.ctrlIn, id, 5*time.Second)
	side[id] = true
	id = c.send(c.control, "interrupt_request", map[string]any{})
	c.reply(c.ctrlIn, id, 5*time.Second)
	side[id] = true

	// The statuses in the order published, up to the cell's idle.
	type status struct{ parent, state string }
	var seq []status
	deadline := time.After(10 * time.Second)
	for len(seq) == 0 || seq[len(seq)-1] != (status{cell, "idle"}) {
		select {
		case m := <-c.iopubIn:
			if m.Header.MsgType == "status" {
				seq = append(seq, status{parentID(m), contentField(m, "execution_state")})
			}
		case <-deadline:
			t.Fatalf("no idle status of the cell within 10 s; statuses %v", seq)
		}
	}
	idles := 0
	for i, s := range seq[:len(seq)-1] {
		if s.state != "idle" {
			continue
		}
		if !side[s.parent] {
			t.Fatalf("idle status of %s, neither the cell nor a request sent meanwhile: %v", s.parent, seq)
		}
		idles++
		if next := seq[i+1]; next != (status{cell, "busy"}) && next != (status{cell, "idle"}) {
			t.Errorf("while the cell ran, the idle status of request %s was followed by %v, not the cell's busy status: a frontend shows the kernel idle", s.parent, next)
		}
	}
	if idles < len(side)-1 { // the interrupt's idle may follow the cell's
		t.Errorf("%d idle statuses of the requests sent while the cell ran, want at least %d: %v", idles, len(side)-1, seq)
	}
}

// TestReplayedMessageDropped sends a signed execute_request, then the same
// frames again (what anyone who saw them on the wire could do), then a new
// request: the copy must not run. jupyter_client's Session refuses a
// signature it has seen (its digest history); the kernel ran the copy, found
// while sending hostile messages to it.
func TestReplayedMessageDropped(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	id, frames := c.frames("execute_request", map[string]any{"code": "once"})
	send := func() {
		if err := c.shell.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	send()
	c.reply(c.shellIn, id, 10*time.Second)
	send()
	send()
	after := c.send(c.shell, "execute_request", map[string]any{"code": "after"})
	// Execute requests are answered in order: a copy that ran would be
	// answered before the request sent after it.
	replies := 1
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case m := <-c.shellIn:
			switch parentID(m) {
			case id:
				replies++
			case after:
				done = true
				var content struct {
					Count int `json:"execution_count"`
				}
				json.Unmarshal(m.Content, &content)
				if content.Count != 2 {
					t.Errorf("execution_count of the request after the copies = %d, want 2", content.Count)
				}
			}
		case <-deadline:
			t.Fatal("no reply to the request sent after the copies within 10 s")
		}
	}
	if replies != 1 {
		t.Errorf("%d replies to a request sent once and replayed twice, want 1", replies)
	}
	if n := strings.Count(tk.logs.String(), "(a replay)"); n != 2 {
		t.Errorf("the kernel's log mentions %d replays, want 2:\n%s", n, tail(tk.logs.String(), 20))
	}
}

// TestTracebackIsOneElement: an error's traceback lines reach the client
// as one element, in the reply and on iopub, as IPython sends a frame:
// nbconvert's Markdown wrote an element a line each as paragraphs, with a
// blank line between an error's source line and its caret.
func TestTracebackIsOneElement(t *testing.T) {
	tk := startKernel(t, "tcp", "tb-key", fakeEngine{}, zmtp.DefaultOptions())
	c := dialClient(t, tk)
	r, io := c.execute("error bad thing")
	want := []string{"ValueError: bad thing\n  at line 1"}
	traceback := func(m *Message) []string {
		var v struct {
			Traceback []string `json:"traceback"`
		}
		json.Unmarshal(m.Content, &v)
		return v.Traceback
	}
	if got := traceback(r); !reflect.DeepEqual(got, want) {
		t.Errorf("execute_reply traceback %q, want %q", got, want)
	}
	published := 0
	for _, m := range io {
		if m.Header.MsgType == "error" {
			published++
			if got := traceback(m); !reflect.DeepEqual(got, want) {
				t.Errorf("iopub error traceback %q, want %q", got, want)
			}
		}
	}
	if published != 1 {
		t.Errorf("%d iopub errors, want 1", published)
	}
}
