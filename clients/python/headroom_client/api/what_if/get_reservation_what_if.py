from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.what_if_run import WhatIfRun
from ...types import Response


def _get_kwargs(
    reservation_id: str,
    run_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reservations/{reservation_id}/what-if/{run_id}".format(
            reservation_id=quote(str(reservation_id), safe=""),
            run_id=quote(str(run_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WhatIfRun | None:
    if response.status_code == 200:
        response_200 = WhatIfRun.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WhatIfRun]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    reservation_id: str,
    run_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | WhatIfRun]:
    """A stream's what-if run: status, progress and, once done, its result

    Args:
        reservation_id (str):
        run_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WhatIfRun]
    """

    kwargs = _get_kwargs(
        reservation_id=reservation_id,
        run_id=run_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    reservation_id: str,
    run_id: str,
    *,
    client: AuthenticatedClient,
) -> Problem | WhatIfRun | None:
    """A stream's what-if run: status, progress and, once done, its result

    Args:
        reservation_id (str):
        run_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WhatIfRun
    """

    return sync_detailed(
        reservation_id=reservation_id,
        run_id=run_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    reservation_id: str,
    run_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | WhatIfRun]:
    """A stream's what-if run: status, progress and, once done, its result

    Args:
        reservation_id (str):
        run_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WhatIfRun]
    """

    kwargs = _get_kwargs(
        reservation_id=reservation_id,
        run_id=run_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    reservation_id: str,
    run_id: str,
    *,
    client: AuthenticatedClient,
) -> Problem | WhatIfRun | None:
    """A stream's what-if run: status, progress and, once done, its result

    Args:
        reservation_id (str):
        run_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WhatIfRun
    """

    return (
        await asyncio_detailed(
            reservation_id=reservation_id,
            run_id=run_id,
            client=client,
        )
    ).parsed
