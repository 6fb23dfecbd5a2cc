// Raw HCI socket transport: see HCISocket.swift
