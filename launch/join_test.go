package launch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/transport/auth"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// execTest starts the test binary in the given mode with extra environment.
func execTest(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := proctest.Command(t, testExe(t))
	cmd.Env = append(append(cmd.Environ(), envMode+"="+mode, quickExit), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

// TestWorkerExitsWhenControlDrops plays the launcher's rendezvous by hand
// for one worker, then drops the control connection: the worker must exit
// with status 1 and say why.
func TestWorkerExitsWhenControlDrops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stderr strings.Builder
	cmd := proctest.Command(t, testExe(t))
	dir := t.TempDir()
	cmd.Env = append(cmd.Environ(), quickExit, envMode+"=hang", envDir+"="+dir)
	cmd.Env = append(cmd.Env, rankEnv(ln.Addr().String(), "s3cret", 0, 1)...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	nonce := bytes.Repeat([]byte{7}, auth.NonceSize)
	reply(c, challenge{Nonce: hex.EncodeToString(nonce)})
	line, err := bufio.NewReader(c).ReadSlice('\n')
	var m register
	if err != nil || json.Unmarshal(line, &m) != nil || m.Rank != 0 || m.Size != 1 || bytes.Contains(line, []byte("s3cret")) {
		t.Fatalf("registration %q (%v): want rank 0, size 1, no secret", line, err)
	}
	rankNonce, err := checkRegistration([]byte("s3cret"), nonce, m)
	if err != nil {
		t.Fatal(err)
	}
	tb := table{Addrs: []string{m.Addr}, Hosts: []string{"h"}}
	tb.MAC = hex.EncodeToString(tableMAC([]byte("s3cret"), nonce, rankNonce, 0, 1, tb))
	reply(c, tb)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitPids(t, dir, 1, done) // the worker got past Join (and, hanging, keeps the connection)
	c.Close()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("worker still running 10 s after its control connection dropped")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitLauncherLost {
		t.Fatalf("worker ended with %v, want exit status %d", err, exitLauncherLost)
	}
	if !strings.Contains(stderr.String(), "lost the control connection to the launcher") {
		t.Errorf("worker stderr %q does not say it lost the launcher", stderr.String())
	}
}

func TestReadWorkerEnv(t *testing.T) {
	good := map[string]string{EnvRendezvous: "127.0.0.1:5000", EnvSecret: "abc", EnvRank: "2", EnvSize: "4"}
	w, err := readWorkerEnv(func(k string) string { return good[k] })
	if err != nil || w.rank != 2 || w.size != 4 || w.secret != "abc" || w.rendezvous != "127.0.0.1:5000" {
		t.Fatalf("good environment: got %+v, %v", w, err)
	}
	for _, tc := range []struct{ key, value, wantVar string }{
		{EnvRendezvous, "", EnvRendezvous},
		{EnvRendezvous, "localhost", EnvRendezvous},
		{EnvSecret, "", EnvSecret},
		{EnvSize, "0", EnvSize},
		{EnvSize, "four", EnvSize},
		{EnvRank, "4", EnvRank},
		{EnvRank, "-1", EnvRank},
		{EnvRank, "", EnvRank},
		{EnvIfAddr, "eth0", EnvIfAddr},
		{tcp.SocketBufferSetting.Env, "0", tcp.SocketBufferSetting.Env},
		{tcp.SocketBufferSetting.Env, "4M", tcp.SocketBufferSetting.Env},
		{EnvTransport, "udp", EnvTransport},
		{shm.CMASetting.Env, "16k", shm.CMASetting.Env},
		{EnvBind, "socket", EnvBind},
	} {
		env := map[string]string{}
		for k, v := range good {
			env[k] = v
		}
		env[tc.key] = tc.value
		_, err := readWorkerEnv(func(k string) string { return env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.wantVar) {
			t.Errorf("%s=%q: got %v, want an error naming %s", tc.key, tc.value, err, tc.wantVar)
		}
	}
}

// TestRendezvousRefusesForeignClients: clients without the job secret (a
// wrong MAC, a registration that is no JSON) are refused and reported
// once per address, and the job's rank still registers and gets a table it
// can authenticate; a table forged without the secret is refused by the
// rank.
func TestRendezvousRefusesForeignClients(t *testing.T) {
	var reports []string
	var mu sync.Mutex
	refuse := &refusals{report: func(m string) { mu.Lock(); reports = append(reports, m); mu.Unlock() }}
	rv, err := startRendezvous("127.0.0.1:0", 1, "s3cret", []string{"h"}, refuse)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	foreign := func(secret string, raw string) string {
		c, err := net.Dial("tcp", rv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if raw != "" {
			bufio.NewReader(c).ReadSlice('\n')
			c.Write([]byte(raw))
			b, _ := io.ReadAll(c)
			return string(b)
		}
		_, err = exchange(ctx, c, []byte(secret), register{Rank: 0, Size: 1, Addr: "127.0.0.1:1"})
		return fmt.Sprint(err)
	}
	for range 2 {
		if got := foreign("guess", ""); !strings.Contains(got, "rendezvous rejected this rank: failed authentication (wrong job secret)") {
			t.Errorf("foreign client with a wrong secret: %s", got)
		}
	}
	if got := foreign("", "GET / HTTP/1.0\r\n\r\n"); !strings.Contains(got, "malformed registration") {
		t.Errorf("foreign client speaking HTTP: %q", got)
	}
	c, err := net.Dial("tcp", rv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tb, err := exchange(ctx, c, []byte("s3cret"), register{Rank: 0, Size: 1, Addr: "127.0.0.1:1"})
	if err != nil || len(tb.Addrs) != 1 || tb.Addrs[0] != "127.0.0.1:1" || tb.Hosts[0] != "h" {
		t.Fatalf("the job's rank after refused clients: %+v %v", tb, err)
	}
	mu.Lock()
	if len(reports) != 1 || !strings.HasPrefix(reports[0], "mpbench: refused a connection to the rendezvous from 127.0.0.1:") ||
		!strings.HasSuffix(reports[0], ": failed authentication (wrong job secret); the job goes on") {
		t.Errorf("reports %q: want one line for 127.0.0.1 naming the cause", reports)
	}
	mu.Unlock()

	// A launcher without the secret: the rank refuses its table.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		reply(c, challenge{Nonce: hex.EncodeToString(bytes.Repeat([]byte{1}, auth.NonceSize))})
		bufio.NewReader(c).ReadSlice('\n')
		reply(c, table{Addrs: []string{"10.0.0.66:1"}, Hosts: []string{"h"}, MAC: hex.EncodeToString(bytes.Repeat([]byte{2}, auth.MACSize))})
	}()
	c2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := exchange(ctx, c2, []byte("s3cret"), register{Rank: 0, Size: 1, Addr: "127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "table failed authentication") {
		t.Errorf("forged table: %v", err)
	}
}
