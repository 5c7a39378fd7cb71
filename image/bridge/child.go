// The server process: spawned once with the bridge's environment minus the bridge's own secrets,
// stdin and stdout kept for the relay, stderr passed straight through (the server's own logs).
// It runs in its own process group so a stop reaches whatever it started (npx → node).
package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
}

// childEnv is the environment minus every AGW_BRIDGE_* variable (the token above all).
func childEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "AGW_BRIDGE_") {
			out = append(out, kv)
		}
	}
	return out
}

func startChild(argv []string, env []string, stderr io.Writer) (*child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	cmd.SysProcAttr = childProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd, stdin: stdin, stdout: stdout}, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// wait reaps the child once its stdout is drained; it returns the exit code (-1 when killed by
// a signal).
func (c *child) wait() int {
	err := c.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// terminate closes the child's stdin (the stdio way to ask a server to stop), signals its group
// SIGTERM, and SIGKILL after grace unless exited closes first.
func (c *child) terminate(grace time.Duration, exited <-chan struct{}) {
	_ = c.stdin.Close()
	signalGroup(c.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		signalGroup(c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// signalGroup signals the child's process group, or the child alone where groups are unknown.
func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(sig)
		}
	}
}
