// Command native is the lifted library built as a C shared library
// (liblifted.so) for the Python package's in-process path (lifted.load,
// native=True): a model is read and parsed once and queried many times.
//
//	go build -buildmode=c-shared -o python/lifted/liblifted.so ./python/native
//
// The C functions take and return JSON text (UTF-8, NUL-terminated). Every
// returned string is allocated with malloc and must be released with
// lifted_free_string. A call that fails returns {"error": {"kind",
// "message", "file", "line", "column"}} (kind "usage", "not_converged" or
// "interrupted" or "error"; the position where the message names one).
//
//	char *lifted_load(char *request, long long *handle)
//	    request {"model": path, "format": "", "evidence": [paths],
//	    "dynamic": false, "max_memory": "4GB"}; sets *handle (0 on error) and returns
//	    {"handle", "format", "warnings": [...]} or an error.
//	char *lifted_run(long long handle, char *request, char **messages)
//	    request {"mode": "infer"|"map"|"compress", "query": [...],
//	    "method", "max_product", "properties": {"max-iter": "200"},
//	    "seed", "workers", "color_mode", "allow_unconverged", "cw", "ow",
//	    "default_weight", "max_ground", "alchemy_cnf", "merge_duplicates",
//	    "construction", "query_files", "max_memory", "dynamic": {"horizon",
//	    "protocol", "filter", "smooth"}}; returns the result document the command
//	    prints with --output-format json (engine.WriteJSON,
//	    engine/result.schema.json) or an error; *messages (if not NULL) is
//	    set to a JSON list of {"level", "text"} (which method and why,
//	    NOT CONVERGED alerts), or NULL.
//	int lifted_interrupt(long long handle)
//	    cancels the lifted_run in flight on the model, as Ctrl-C stops the
//	    command: that call returns within about 0.5 s with the error kind
//	    "interrupted". Returns 1 if a run was in flight, else 0 (a run not
//	    yet started is not cancelled: repeat until the call returns).
//	int lifted_interrupt_load(long long token)
//	    stops the lifted_load whose request named this "token" (the same
//	    way); 1 if it was in flight.
//	int lifted_free(long long handle)     1 if it was loaded, else 0
//	int lifted_handles(void)              the number of loaded models
//	void lifted_free_string(char *s)
//	char *lifted_version(void)            {"schema_version": N}
//
// Calls on one model run one at a time (a lock per model); calls on
// different models may run in parallel; a call with "max_memory" (the
// command's --max-memory, a budget of the whole process) runs alone. The
// library never exits the
// process and installs no signal handlers of its own; a panic is returned
// as an error. Go requires a foreign handler of an asynchronous signal to
// run on the alternate signal stack (os/signal: "Go programs that use cgo
// or SWIG": SA_ONSTACK), else a Ctrl-C delivered to a thread running Go
// code runs the handler on a goroutine's small stack; Python's SIGINT
// handler is installed without it, so every call adds SA_ONSTACK to the
// SIGINT handler in force (fixOnStack).
package main

/*
#include <signal.h>
#include <stdlib.h>
#include <string.h>

// lifted_fix_onstack adds SA_ONSTACK to the handler of SIGINT, if one is
// installed without it (Python's).
static void lifted_fix_onstack(void) {
	struct sigaction sa;
	if (sigaction(SIGINT, NULL, &sa) != 0) return;
	if (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN) return;
	if (sa.sa_flags & SA_ONSTACK) return;
	sa.sa_flags |= SA_ONSTACK;
	sigaction(SIGINT, &sa, NULL);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/lifted-dev/lifted/engine"
)

func cBytes(p *C.char) []byte {
	if p == nil {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(C.strlen(p)))
}

func cString(b []byte) *C.char { return C.CString(string(b)) }

// fixOnStack: see the package comment.
func fixOnStack() { C.lifted_fix_onstack() }

//export lifted_load
func lifted_load(request *C.char, handle *C.longlong) *C.char {
	fixOnStack()
	out := load(cBytes(request))
	var h loadResponse
	if handle != nil {
		*handle = 0
		if decodeHandle(out, &h) {
			*handle = C.longlong(h.Handle)
		}
	}
	return cString(out)
}

//export lifted_run
func lifted_run(handle C.longlong, request *C.char, messages **C.char) *C.char {
	fixOnStack()
	out, msgs := run(int64(handle), cBytes(request))
	if messages != nil {
		*messages = nil
		if msgs != nil {
			*messages = cString(msgs)
		}
	}
	return cString(out)
}

//export lifted_interrupt
func lifted_interrupt(handle C.longlong) C.int {
	if interrupt(int64(handle)) {
		return 1
	}
	return 0
}

//export lifted_interrupt_load
func lifted_interrupt_load(token C.longlong) C.int {
	if interruptLoad(int64(token)) {
		return 1
	}
	return 0
}

//export lifted_free
func lifted_free(handle C.longlong) C.int {
	if free(int64(handle)) {
		return 1
	}
	return 0
}

//export lifted_handles
func lifted_handles() C.int { return C.int(live()) }

//export lifted_free_string
func lifted_free_string(s *C.char) {
	if s != nil {
		C.free(unsafe.Pointer(s))
	}
}

//export lifted_version
func lifted_version() *C.char {
	return C.CString(fmt.Sprintf(`{"schema_version":%d}`, engine.SchemaVersion))
}

func main() {}
