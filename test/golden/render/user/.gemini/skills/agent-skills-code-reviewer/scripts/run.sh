#!/bin/sh
echo review
