package handlers

import (
	"github.com/gofiber/fiber/v2"
)

// badRequest is a 400 with a message for the client.
func badRequest(msg string) error { return fiber.NewError(fiber.StatusBadRequest, msg) }
