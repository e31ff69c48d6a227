package models

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateProjectAliases(t *testing.T) {
	st := DefaultSettings()
	st.Capture.ProjectAliases = map[string]string{"/work/app": "app"}
	if err := st.Validate(); err != nil {
		t.Fatalf("a good alias: %v", err)
	}
	st.Capture.ProjectAliases = map[string]string{"relative/dir": "x", "/work/b": " "}
	err := st.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "must be absolute") || !strings.Contains(err.Error(), "needs a project name") {
		t.Fatalf("bad aliases: %v", err)
	}
}
