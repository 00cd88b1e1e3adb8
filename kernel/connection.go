package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
)

// ConnectionInfo is the content of a Jupyter connection file: where the five
// sockets listen and how messages are signed.
type ConnectionInfo struct {
	Transport       string `json:"transport"` // "tcp" or "ipc"
	IP              string `json:"ip"`        // address for tcp, path prefix for ipc
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"` // e.g. "hmac-sha256"
	Key             string `json:"key"`              // empty: messages are not signed
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and checks a connection file written by Jupyter.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return ci, fmt.Errorf("kernel: reading connection file: %w", err)
	}
	if err := json.Unmarshal(b, &ci); err != nil {
		return ci, fmt.Errorf("kernel: connection file %s: %w", path, err)
	}
	if err := ci.check(); err != nil {
		return ci, fmt.Errorf("kernel: connection file %s: %w", path, err)
	}
	return ci, nil
}

// check reports the first thing wrong with ci.
func (ci ConnectionInfo) check() error {
	switch ci.Transport {
	case "tcp", "ipc":
	default:
		return fmt.Errorf("transport %q: want tcp or ipc", ci.Transport)
	}
	if ci.IP == "" {
		return fmt.Errorf("empty ip")
	}
	ports := []struct {
		name string
		port int
	}{{"shell_port", ci.ShellPort}, {"iopub_port", ci.IOPubPort}, {"stdin_port", ci.StdinPort},
		{"control_port", ci.ControlPort}, {"hb_port", ci.HBPort}}
	for _, p := range ports {
		if p.port <= 0 || (p.port > 65535 && ci.Transport == "tcp") {
			return fmt.Errorf("%s %d out of range", p.name, p.port)
		}
	}
	if _, err := newSigner(ci.SignatureScheme, ci.Key); err != nil {
		return err
	}
	return nil
}

// endpoint returns the network and address a socket on port listens on, as
// jupyter_client forms them: ip:port for tcp and the path ip-port for ipc.
func (ci ConnectionInfo) endpoint(port int) (network, address string) {
	if ci.Transport == "ipc" {
		return "unix", ci.IP + "-" + strconv.Itoa(port)
	}
	ip := ci.IP
	if ip == "*" {
		ip = "0.0.0.0"
	}
	return "tcp", net.JoinHostPort(ip, strconv.Itoa(port))
}
