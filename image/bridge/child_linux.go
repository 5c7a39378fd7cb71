package main

import "syscall"

// childProcAttr puts the child in its own process group and has the kernel kill it if the bridge
// dies without cleaning up (SIGKILL, OOM), so no orphaned server outlives its pod's bridge.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
