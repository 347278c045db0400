package launch

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// execTest starts the test binary in the given mode with extra environment.
func execTest(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testExe(t))
	cmd.Env = append(append(cmd.Environ(), envMode+"="+mode, quickExit), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	cmd := exec.Command(testExe(t))
	cmd.Env = append(cmd.Environ(), quickExit, envMode+"=hang", envDir+"="+t.TempDir())
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
	line, err := bufio.NewReader(c).ReadSlice('\n')
	var m register
	if err != nil || json.Unmarshal(line, &m) != nil || m.Secret != "s3cret" || m.Rank != 0 || m.Size != 1 {
		t.Fatalf("registration %q (%v): want secret, rank 0, size 1", line, err)
	}
	reply(c, table{Addrs: []string{m.Addr}, Hosts: []string{"h"}})
	time.Sleep(200 * time.Millisecond) // let the worker get past Join
	c.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
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
		{EnvSockBuf, "0", EnvSockBuf},
		{EnvSockBuf, "4M", EnvSockBuf},
		{EnvTransport, "udp", EnvTransport},
		{EnvShmCMA, "16k", EnvShmCMA},
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
