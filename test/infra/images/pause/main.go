// agw-pause: the pod sandbox's first process for the issue-21 test cluster, built by
// test/infra/cluster-images.sh instead of pulling registry.k8s.io/pause (no registry here).
// It is PID 1 of the pod: it blocks, reaps the zombies that orphaned children leave behind
// (when the pod shares its PID namespace), and exits 0 on SIGTERM or SIGINT.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const version = "1"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "-v" || os.Args[1] == "--version") {
		fmt.Println("agw-pause", version)
		return
	}
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "agw-pause: warning: not PID 1")
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for sig := range signals {
		if sig == syscall.SIGCHLD {
			reap()
			continue
		}
		fmt.Fprintf(os.Stderr, "agw-pause: %v, exiting\n", sig)
		os.Exit(0)
	}
}

// reap collects every exited child. SIGCHLD is coalesced (several children may end for one
// signal), so it loops until no exited child is left.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 { // ECHILD: no children; 0: the rest are still running
			return
		}
	}
}
