#!/usr/bin/env bash
# exit-code.sh CMD...: runs CMD (stdout and stderr kept), then prints "exit N" with its exit
# code, so that FileCheck can assert the exact code (lit's shell has no $?).
"$@" 2>&1
echo "exit $?"
