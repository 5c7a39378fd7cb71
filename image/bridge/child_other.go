//go:build !linux

package main

import "syscall"

// childProcAttr puts the child in its own process group (Pdeathsig is Linux-only).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
