package kernel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copulang/copulang/kernel"
)

func ExampleNewKernelspec() {
	b, _ := json.MarshalIndent(kernel.NewKernelspec("/usr/local/bin/copulang"), "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "argv": [
	//     "/usr/local/bin/copulang",
	//     "kernel",
	//     "-f",
	//     "{connection_file}"
	//   ],
	//   "display_name": "Copulang",
	//   "language": "copulang",
	//   "interrupt_mode": "message"
	// }
}

func ExampleReadConnectionFile() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kernel-1234.json")
	os.WriteFile(path, []byte(`{"transport": "tcp", "ip": "127.0.0.1", "shell_port": 50001,
		"iopub_port": 50002, "stdin_port": 50003, "control_port": 50004, "hb_port": 50005,
		"signature_scheme": "hmac-sha256", "key": "a0436f6c-1916-498b-8eb9-e81ab9368e84"}`), 0o600)
	ci, err := kernel.ReadConnectionFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Then: kernel.Serve(ctx, ci, engine, kernel.DefaultInfo(version), logger)
	fmt.Println(ci.Transport, ci.IP, ci.ShellPort, ci.SignatureScheme)
	// Output: tcp 127.0.0.1 50001 hmac-sha256
}
