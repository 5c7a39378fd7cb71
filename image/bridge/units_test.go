package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadLinesSkipsOverlongLinesAndKeepsGoing(t *testing.T) {
	input := "first\r\n" + strings.Repeat("x", 100) + "\n\nlast"
	var lines []string
	var dropped []int
	err := readLines(strings.NewReader(input), 10, func(l []byte) { lines = append(lines, string(l)) }, func(n int) { dropped = append(dropped, n) })
	if err != nil || !slices.Equal(lines, []string{"first", "last"}) || !slices.Equal(dropped, []int{101}) {
		t.Errorf("lines %q dropped %v err %v", lines, dropped, err)
	}
}

func TestChildEnvLosesTheBridgeVariables(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "AGW_BRIDGE_TOKEN=secret", "AGW_BRIDGE_OTHER=x", "HOME=/h"})
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/h"}) {
		t.Errorf("child env %q", got)
	}
}

func TestLoadAuthRefusesToStartWithoutAToken(t *testing.T) {
	none := func(string) string { return "" }
	if _, err := loadAuth("", false, none); err == nil {
		t.Error("started without a token")
	}
	if a, err := loadAuth("", true, none); err != nil || !a.open {
		t.Error("--insecure-no-auth refused")
	}
	if _, err := loadAuth("", false, func(string) string { return "short" }); err == nil {
		t.Error("accepted a short token")
	}
	file := filepath.Join(t.TempDir(), "token")
	_ = os.WriteFile(file, []byte(testToken+"\n"), 0o600)
	a, err := loadAuth(file, true, none)
	if err != nil || a.open {
		t.Fatalf("token file: %v", err)
	}
	_ = os.WriteFile(file, []byte("\n"), 0o600)
	if _, err := loadAuth(file, false, none); err == nil {
		t.Error("accepted an empty token file")
	}
}

func TestParseConfigSplitsFlagsFromTheCommand(t *testing.T) {
	c, err := parseConfig([]string{"--port", "9000", "--", "npx", "-y", "server", "--port", "1"}, os.Stderr)
	if err != nil || c.port != 9000 || !slices.Equal(c.command, []string{"npx", "-y", "server", "--port", "1"}) {
		t.Errorf("config %+v err %v", c, err)
	}
	if c.callTimeout.Seconds() != 300 || c.maxPending != 256 {
		t.Errorf("defaults %+v", c)
	}
	if _, err := parseConfig([]string{"--port", "9000"}, os.Stderr); err == nil {
		t.Error("accepted no command")
	}
	if c, err := parseConfig([]string{"--upstream", "http://127.0.0.1:8081"}, os.Stderr); err != nil || c.upstream == "" {
		t.Errorf("proxy mode: %+v %v", c, err)
	}
	if _, err := parseConfig([]string{"--upstream", "http://127.0.0.1:8081", "--", "server"}, os.Stderr); err == nil {
		t.Error("accepted both an upstream and a command")
	}
	if _, err := parseConfig([]string{"--upstream", "http://10.1.2.3:8081"}, os.Stderr); err == nil {
		t.Error("accepted an upstream outside the pod")
	}
}

func TestParseMessageClassifies(t *testing.T) {
	cases := map[string]kind{
		`{"jsonrpc":"2.0","id":1,"method":"m"}`:                     kindRequest,
		`{"jsonrpc":"2.0","method":"m"}`:                            kindNotification,
		`{"jsonrpc":"2.0","id":"a","result":{}}`:                    kindResponse,
		`{"jsonrpc":"2.0","id":"a","error":{"code":1}}`:             kindResponse,
		"{\n \"jsonrpc\" : \"2.0\", \"id\" : 1 , \"method\":\"m\"}": kindRequest,
	}
	for text, want := range cases {
		m, err := parseMessage([]byte(text))
		if err != nil || m.kind != want {
			t.Errorf("%s: %v %v", text, m, err)
		}
	}
	for _, bad := range []string{`{"jsonrpc":"2.0","id":{},"method":"m"}`, `{"jsonrpc":"1.0","method":"m"}`, `{"jsonrpc":"2.0","id":1}`, `null`, `"x"`} {
		if _, err := parseMessage([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestEncodeFieldsIsOneLineWithoutHTMLEscapes(t *testing.T) {
	m, _ := parseMessage([]byte("{\"jsonrpc\":\"2.0\",\n\"method\":\"m\",\"params\":{\"a\": \"<b>&\"}}"))
	got := string(encodeFields(m.fields))
	if got != `{"jsonrpc":"2.0","method":"m","params":{"a":"<b>&"}}` {
		t.Errorf("encoded %s", got)
	}
}

func TestInstallCopiesTheRunningBinary(t *testing.T) {
	target := filepath.Join(t.TempDir(), "bridge")
	if code := run([]string{"--install", target}, func(string) string { return "" }, nil, os.Stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	self, _ := os.Executable()
	want, _ := os.ReadFile(self)
	got, err := os.ReadFile(target)
	info, _ := os.Stat(target)
	if err != nil || !slices.Equal(got, want) || info.Mode().Perm() != 0o755 {
		t.Errorf("installed copy differs or mode %v", info.Mode())
	}
}
