// Self-install: the init container runs `agw-bridge --install /agw/bridge` from the gateway image
// (which has no shell or cp) to copy this very binary into the emptyDir the server container
// mounts. Written to a temporary name and renamed, so a half-copied file never runs.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func install(target string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(self)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(target), ".agw-bridge-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("installing to %s: %w", target, err)
	}
	return nil
}
