"""A small movie API whose tasks take several steps, for the tests of where ids come from
(tools/_provenance.py), search's producers, lint's `id-source-missing` and search mode over MCP."""

from __future__ import annotations

MOVIES = """\
openapi: 3.1.0
info: {title: Movies, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /search/movie:
    get:
      operationId: search_movie
      summary: Search for movies by their title
      parameters: [{name: query, in: query, required: true, schema: {type: string}}]
      responses:
        '200':
          description: matching movies
          content: {application/json: {schema: {$ref: '#/components/schemas/MoviePage'}}}
  /movie/top_rated:
    get:
      operationId: movie_top_rated
      summary: Top rated movies
      responses:
        '200':
          description: the best rated movies
          content: {application/json: {schema: {$ref: '#/components/schemas/MoviePage'}}}
  /movie/{movie_id}:
    get:
      operationId: movie_details
      summary: Details of a movie
      parameters: [{name: movie_id, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: the movie
          content: {application/json: {schema: {$ref: '#/components/schemas/Movie'}}}
  /movie/{movie_id}/credits:
    get:
      operationId: movie_credits
      summary: Cast and crew of a movie, the director among them
      parameters: [{name: movie_id, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: the cast and crew
          content:
            application/json:
              schema:
                type: object
                properties:
                  cast: {type: array, items: {$ref: '#/components/schemas/Credit'}}
                  crew: {type: array, items: {$ref: '#/components/schemas/Credit'}}
          links:
            castMember:
              operationId: person_details
              parameters: {person_id: '$response.body#/cast/0/id'}
  /person/{person_id}:
    get:
      operationId: person_details
      summary: Details of a person
      parameters: [{name: person_id, in: path, required: true, schema: {type: integer}}]
      responses: {'200': {description: the person}}
  /genre/movie/list:
    get:
      operationId: genre_movie_list
      summary: Movie genres
      responses:
        '200':
          description: genres
          content:
            application/json:
              schema:
                type: object
                properties: {genres: {type: array, items: {$ref: '#/components/schemas/Genre'}}}
  /account/{account_id}/favorites:
    post:
      operationId: add_favorite
      summary: Mark a movie as a favorite of an account
      parameters: [{name: account_id, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [movie_id]
              properties: {movie_id: {type: integer}, favorite: {type: boolean}}
      responses: {'201': {description: marked}}
components:
  schemas:
    MoviePage:
      type: object
      properties:
        page: {type: integer}
        results: {type: array, items: {$ref: '#/components/schemas/MovieListItem'}}
    MovieListItem:
      type: object
      properties: {id: {type: integer}, title: {type: string}}
    Movie:
      type: object
      properties: {id: {type: integer}, title: {type: string}, runtime: {type: integer}}
    Credit:
      type: object
      properties: {id: {type: integer}, name: {type: string}, job: {type: string}}
    Genre:
      type: object
      properties: {id: {type: integer}, name: {type: string}}
"""
